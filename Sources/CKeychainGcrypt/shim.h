/* SPDX-License-Identifier: MIT */
#include <gcrypt.h>
