#pragma once
/* Monotonic milliseconds for deadlines, and a sleep that survives signals:
 * the timeouts of the transports, the sign-in listener and retry backoff. */

long long monotime_ms(void);
/* Sleeps ms milliseconds (resuming after EINTR); ms <= 0 returns at once. */
void monotime_sleep_ms(long long ms);
