/* Test harness only, never shipped: Wine 8 has no bcryptprimitives.dll, from which Rust's
 * standard library (1.78 and later) imports ProcessPrng to seed its hash maps. This DLL gives
 * it one, backed by advapi32's RtlGenRandom (SystemFunction036), which Wine has. tools/wine
 * builds it with mingw-w64 and copies it into the test prefix's system32. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
