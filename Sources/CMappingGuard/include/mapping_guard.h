#ifndef MAPPING_GUARD_H
#define MAPPING_GUARD_H
#include <stddef.h>

/* Read-only file mappings that a shrinking file must not turn into a SIGBUS. A fault inside a guarded
   mapping maps zero pages over the rest of it and marks it faulted; the reader checks the mark and
   ends as for a truncated file. Faults anywhere else get the default action. At most 8 at a time. */

/* Guards [base, base + length). Returns the mapping's fault mark, nonzero once a fault was taken in
   it, or NULL when all slots are taken. */
const volatile int *mapping_guard_add(const void *base, size_t length);
/* Stops guarding the mapping at base (before it is unmapped). */
void mapping_guard_remove(const void *base);

/* For a write(2) that failed with EFAULT, whose kernel copy does not raise SIGBUS: touches every
   page of [base, base + length) from user space if all of it lies in a guarded mapping, so that lost
   pages become zero pages, and returns 1; returns 0, touching nothing, otherwise. */
int mapping_guard_fault_in(const void *base, size_t length);

static inline int mapping_guard_is_faulted(const volatile int *mark) { return *mark; }

/* Asks for the cache lines at `next` and next + 64 (the next record's header and first bytes) ahead
   of their use, and for the line at next + stride, where the record after it starts if it is as long
   as this one (a video stream's packets mostly are). A capture walked in place finds its next record
   only through this one's length, so without it every record header is a cache miss that nothing
   overlaps; guessing one record further hides a second miss behind this record's work. A prefetch
   never faults, even past the mapping's end. */

static inline void mapping_prefetch(const void *next, long stride) {
    __builtin_prefetch(next);
    __builtin_prefetch((const char *)next + 64);
    __builtin_prefetch((const char *)next + stride);
}

#endif
