/* prep_kn2.h - compile-time functions of the kn2 family rows (see prep.h). */
#ifndef DNNCC_PREP_KN2_H
#define DNNCC_PREP_KN2_H

#include "runtime/primitives.h"

#endif
