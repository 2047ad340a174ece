/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_reason.h - why frames of a trial never counted: the sender's and the receiver's drop reasons. */
#ifndef LB_REASON_H
#define LB_REASON_H

/* X-macros: each makes the enum and the names (lb_tx_drop_name, ...). */

/* Frames of the trial dropped by the sender before the wire. */
#define LB_FOREACH_TX_DROP(X)                                          \
    X(REFUSED, "tx_refused")     /* the TX port did not take them */   \
    X(NOMBUF, "tx_nombuf")       /* no mbuf to build them in */

/* Frames the receiver got but could not count as frames of the trial. */
#define LB_FOREACH_RX_DROP(X)                                                  \
    X(FOREIGN, "foreign")            /* not an ebfarm fragment frame */        \
    X(BAD_FRAME, "bad_frame")        /* an ebfarm frame that does not parse */ \
    X(BAD_CHECKSUM, "bad_checksum")  /* CRC32C mismatch: corrupted */          \
    X(STALE, "stale")                /* a frame of an earlier trial */         \
    X(BAD_STREAM, "bad_stream")      /* source >= the streams configured */

/*
 * Why a trial is invalid (the sender missed the asked rate by more than the
 * tolerance), first match in this order (lb_invalid_reason, lb_rate.h).
 */
#define LB_FOREACH_INVALID(X)                                                           \
    X(NONE, "none")                  /* valid */                                        \
    X(STOPPED, "stopped")            /* interrupted by a signal or an error */          \
    X(TX_AHEAD, "tx_ahead")          /* the sender went faster than asked */            \
    X(TX_REFUSED, "tx_refused")      /* the port refused frames: its queue was full */  \
    X(TX_NOMBUF, "tx_nombuf")        /* no mbuf for frames */                           \
    X(TX_PREEMPTED, "tx_preempted")  /* the sender lost its CPU: passes stalled */       \
    X(TX_SLOW, "tx_slow")            /* on its CPU, but a burst cost more than its gaps */

enum lb_invalid {
#define LB_ENUM(n, s) LB_INVALID_##n,
    LB_FOREACH_INVALID(LB_ENUM)
#undef LB_ENUM
    LB_INVALID_MAX
};

enum lb_tx_drop {
#define LB_ENUM(n, s) LB_TX_##n,
    LB_FOREACH_TX_DROP(LB_ENUM)
#undef LB_ENUM
    LB_TX_DROP_MAX
};

enum lb_rx_drop {
#define LB_ENUM(n, s) LB_RX_##n,
    LB_FOREACH_RX_DROP(LB_ENUM)
#undef LB_ENUM
    LB_RX_DROP_MAX
};

const char *lb_tx_drop_name(unsigned r);
const char *lb_rx_drop_name(unsigned r);
const char *lb_invalid_name(unsigned r);

#endif /* LB_REASON_H */
