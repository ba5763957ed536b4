#include "CMallocTuning.h"

// Any C library header defines __GLIBC__ on glibc.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int apple_id_mock_fix_mmap_threshold(int bytes) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}
