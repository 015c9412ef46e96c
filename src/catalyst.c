/* placeholder until the module lands */
#include "err.h"
