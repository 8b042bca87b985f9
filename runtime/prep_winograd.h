/* prep_winograd.h - compile-time functions of the winograd family rows (see prep.h). */
#ifndef DNNCC_PREP_WINOGRAD_H
#define DNNCC_PREP_WINOGRAD_H

#include "runtime/primitives.h"

#endif
