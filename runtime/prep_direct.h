/* prep_direct.h - compile-time functions of the direct family rows (see prep.h). */
#ifndef DNNCC_PREP_DIRECT_H
#define DNNCC_PREP_DIRECT_H

#include "runtime/primitives.h"

#endif
