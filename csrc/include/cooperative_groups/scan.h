// cooperative_groups::scan lives in ../cooperative_groups.h here.
#pragma once
#include "../cooperative_groups.h"
