#define _GNU_SOURCE
#include "mapping_guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOTS 8

struct slot {
    _Atomic(uintptr_t) base;
    _Atomic(size_t) length;
    volatile int faulted;
};

static struct slot slots[SLOTS];
static struct sigaction previous;
static _Atomic(int) installed;

static void on_sigbus(int signal, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t base = slots[i].base;
        size_t length = slots[i].length;
        if (base == 0 || address < base || address >= base + length) continue;
        /* The file ended under the mapping: zero pages from the faulting one to the mapping's end. */
        uintptr_t page = address & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
        if (mmap((void *)page, base + length - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            != MAP_FAILED) {
            slots[i].faulted = 1;
            return;
        }
        break;
    }
    /* Not ours: the action there was before, for the fault to take its course. */
    sigaction(SIGBUS, &previous, NULL);
    (void)signal;
    (void)context;
}

const volatile int *mapping_guard_add(const void *base, size_t length) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&installed, &expected, 1)) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_sigbus;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(SIGBUS, &action, &previous);
    }
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t free = 0;
        if (atomic_compare_exchange_strong(&slots[i].base, &free, (uintptr_t)1)) {
            slots[i].faulted = 0;
            slots[i].length = length;
            slots[i].base = (uintptr_t)base;
            return &slots[i].faulted;
        }
    }
    return NULL;
}

void mapping_guard_remove(const void *base) {
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].base == (uintptr_t)base) {
            slots[i].length = 0;
            slots[i].base = 0;
        }
    }
}

int mapping_guard_fault_in(const void *base, size_t length) {
    uintptr_t start = (uintptr_t)base;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t slot = slots[i].base;
        if (slot <= 1 || start < slot || start + length > slot + slots[i].length) continue;
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        for (uintptr_t p = start & ~(page - 1); p < start + length; p += page) {
            (void)*(const volatile char *)(p < start ? start : p);
        }
        return 1;
    }
    return 0;
}
