#ifndef LINEUPD_SIGNALS_H
#define LINEUPD_SIGNALS_H

/// Whether lineupd's early handlers were installed before any library's initializer ran (see
/// early_signals.c): true in the executable that links this target.
_Bool lineupd_early_handlers_installed(void);

/// Sends this process again each signal that the early handlers caught, once, in the order
/// SIGTERM, SIGINT, SIGHUP, SIGUSR1 (a stop first: no reload or flush is worth making before
/// it); returns how many it sent. Call it once the daemon's own handlers are installed: they
/// replaced the early ones, and take these as they take any other.
int lineupd_replay_early_signals(void);

#endif
