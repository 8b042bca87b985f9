/* criterion/parameterized.h - see criterion.h here: the shim has both. */
#include "criterion/criterion.h"
