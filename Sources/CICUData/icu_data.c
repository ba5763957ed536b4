// ICU's data, trimmed, for the container image (docs/container.md, "ICU's data").
//
// Foundation on Linux carries ICU with its whole data package (34 MB: every language's locale data,
// collation, character set converters...), which postgres-nio, swift-nio's Foundation bridges and
// async-http-client link in through Foundation's string and JSON functions. The Dockerfile writes a
// subset of it (scripts/container/icu-data-subset.swift: time zones, root and English locale data,
// normalization, IDNA, break iteration) and builds with
//   -Xcc -DAPPLE_ID_MOCK_ICU_DATA_FILE=<the subset> -Xcc -DAPPLE_ID_MOCK_ICU_DATA_SYMBOL=icudtNN_dat
// so that this file defines ICU's data symbol with the subset: the linker then never takes the
// toolchain's archive member that defines it. Any other build (debug, tests, macOS) defines
// nothing here, and Foundation keeps its full data.
#if defined(APPLE_ID_MOCK_ICU_DATA_FILE) && defined(APPLE_ID_MOCK_ICU_DATA_SYMBOL)
#define CICUDATA_STRING(x) #x
#define CICUDATA_XSTRING(x) CICUDATA_STRING(x)
__asm__(".section .rodata." CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_SYMBOL) ",\"a\",@progbits\n"
        ".balign 16\n"
        ".globl " CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_SYMBOL) "\n"
        ".type " CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_SYMBOL) ", @object\n"
        CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_SYMBOL) ":\n"
        ".incbin \"" CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_FILE) "\"\n"
        ".size " CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_SYMBOL) ", . - " CICUDATA_XSTRING(APPLE_ID_MOCK_ICU_DATA_SYMBOL) "\n"
        ".previous\n");
#endif
