#ifndef C_MALLOC_TUNING_H
#define C_MALLOC_TUNING_H

/// Fixes glibc's mmap threshold at `bytes` (which also stops glibc from raising it on its own).
/// Returns 1 when set, 0 when the C library is not glibc or refused.
int apple_id_mock_fix_mmap_threshold(int bytes);

#endif
