/* Time is the caller's: every engine call that depends on it takes `now`. */
#ifndef UET_TIME_H
#define UET_TIME_H

#include <stdint.h>

typedef uint64_t uet_time;		/* ns of the caller's monotonic clock */
#define UET_TIME_NONE UINT64_MAX	/* no deadline */

#define UET_USEC ((uet_time)1000)
#define UET_MSEC ((uet_time)1000000)
#define UET_SEC ((uet_time)1000000000)

#endif
