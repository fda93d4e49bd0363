// SPDX-License-Identifier: MIT
//
// ICU's data for keychaind, English only (subset.py says what is kept and why): 5 MB where the
// toolchain's archive holds 34. `make build` writes generated/ before it builds; this target's
// object is linked before the toolchain's libraries, so its icudtNN_dat is the one ICU reads and
// the archive's is never pulled in. Without generated/ (a plain `swift build` in a fresh clone)
// this file assembles to nothing and the program carries the full data.
#if __has_include("generated/icu_data.inc") && __has_include("generated/icu_data.dat")
#include "generated/icu_data.inc"
#endif
	.section .note.GNU-stack,"",@progbits
