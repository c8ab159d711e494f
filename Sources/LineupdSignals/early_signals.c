// lineupd's signals, from the first instruction of the executable's own code on.
//
// SIGHUP, SIGUSR1, SIGUSR2, SIGTERM and SIGINT end a process by default. Until the daemon has
// installed its handlers (swift-service-lifecycle's `UnixSignalsSequence`, Dispatch signal
// sources), a supervisor's `kill -HUP` or a deploy script's `kill -USR1` would kill it, and that
// takes tens of milliseconds: the Swift runtime's and Foundation's initializers, the options,
// the logging system. Blocking the signals is not enough: on Linux, `dispatch_main()`, where the
// main thread of an async `main` ends up, waits in `sigsuspend` with an empty mask, so every
// signal without a handler is delivered there, with its default action.
//
// So handlers are installed first, from the executable's `.preinit_array`: the dynamic loader
// runs it once it has relocated the program, before any shared library's initializer. They only
// note the signal. Dispatch's own handlers replace them when the daemon's signal sources are
// made; the daemon then calls `lineupd_replay_early_signals()`, which sends the noted signals
// again, to those sources: an early SIGTERM or SIGINT stops the daemon cleanly, an early SIGHUP
// reloads, an early SIGUSR1 flushes. SIGUSR2, which lineupd does not use, keeps the noting
// handler for good: it is ignored, and, unlike SIG_IGN, a handler is reset to the default
// action in a program that lineupd would exec.
//
// What is left is the kernel's exec and the dynamic loader's mapping and relocation of the
// program and its libraries, before any code of the program runs.

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "LineupdSignals.h"

/// The signals noted, in the order they are replayed (a stop first).
static const int earlySignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};
enum { earlySignalCount = sizeof earlySignals / sizeof earlySignals[0] };

/// Set by the handler, on whichever thread the signal lands (the main thread, in dispatch_main's
/// `sigsuspend`), and taken by the replay on another: atomics, which are lock-free here and so
/// safe in a signal handler (a `volatile sig_atomic_t` is safe only within one thread).
static atomic_bool noted[earlySignalCount];
_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2, "a signal handler may only use lock-free atomics");
static bool installed = false;

static void lineupd_note_signal(int signal) {
    for (int index = 0; index < earlySignalCount; index++) {
        if (earlySignals[index] == signal) atomic_store(&noted[index], true);
    }
}

static void lineupd_install_early_handlers(int argc, char **argv, char **envp) {
    (void)argc;
    (void)argv;
    (void)envp;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = lineupd_note_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    bool all = true;
    for (int index = 0; index < earlySignalCount; index++) {
        all = sigaction(earlySignals[index], &action, NULL) == 0 && all;
    }
    installed = all;
}

__attribute__((section(".preinit_array"), used)) static void (*const lineupd_preinit)(int, char **, char **) =
    lineupd_install_early_handlers;

_Bool lineupd_early_handlers_installed(void) {
    return installed;
}

int lineupd_replay_early_signals(void) {
    int sent = 0;
    // SIGUSR2 stays with the noting handler: nothing to replay it to.
    for (int index = 0; index < earlySignalCount; index++) {
        if (earlySignals[index] == SIGUSR2 || !atomic_exchange(&noted[index], false)) continue;
        if (kill(getpid(), earlySignals[index]) == 0) sent++;
    }
    return sent;
}
