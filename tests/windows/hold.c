/* Test harness only, never shipped: hold.exe FILE SECONDS opens FILE the way a Windows program
 * usually does (no FILE_SHARE_DELETE), prints "holding" and keeps it open for SECONDS, so that
 * tests/windows.rs can check what rigtrip.exe says when its output cannot be replaced. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

int wmain(int argc, wchar_t **argv) {
    if (argc != 3) return 2;
    HANDLE h = CreateFileW(argv[1], GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return 1;
    printf("holding\n");
    fflush(stdout);
    Sleep((DWORD)_wtoi(argv[2]) * 1000);
    CloseHandle(h);
    return 0;
}
