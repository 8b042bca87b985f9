/* prep_im2.h - compile-time functions of the im2 family rows (see prep.h). */
#ifndef DNNCC_PREP_IM2_H
#define DNNCC_PREP_IM2_H

#include "runtime/primitives.h"

#endif
