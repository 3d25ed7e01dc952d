/* Process lockdown applied once the backends are initialised and before serving clients. */
#ifndef SANDBOX_SANDBOX_H
#define SANDBOX_SANDBOX_H

/* Applies the lockdown to the whole process. Returns 0, or -errno of the first step that failed
 * (the steps before it stay applied). */
int sandbox_enter(void);

#endif
