/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC requester's send window: how many PSNs may be unacknowledged.
 *
 * A fixed window is what a lossless fabric wants, and a software device
 * rarely has one: between two emulated hosts the receiver is often slower
 * than the sender, and with several QPs each filling a full window the
 * bursts overflow whatever buffer is in front of the receiver. Every loss
 * then costs a go-back-N of the whole window, which the receiver, already
 * behind, must process and drop again. So the window shrinks on loss and
 * grows back while acknowledgments arrive (additive increase,
 * multiplicative decrease):
 *
 *   - a loss (a sequence NAK, a lost response, a transport timeout) halves
 *     it, once per window: losses of packets sent before the cut are the
 *     same congestion event and do not cut again;
 *   - each window's worth of acknowledged PSNs grows it by one, up to its
 *     maximum, where it starts and where it stays while nothing is lost:
 *     a lossless link (a loopback, the same host) never sees it.
 *
 * The completer (comp.c) shrinks and grows it, and only shrinks it while
 * the adaptive_window module parameter is on (the default, comp.c);
 * the requester (req.c) asks it before each packet and how often to ask
 * for an ACK. Both run on the QP's send side, whose single runner owns
 * it.
 *
 * L0: pure, no locking, tested in user space by selftests/unit.
 */
#ifndef SROCE_WINDOW_H
#define SROCE_WINDOW_H

#include "l0_compat.h"
#include "psn.h"

/*
 * Largest window: enough for a loopback at full speed (the responder runs
 * on the sender's thread there). A bigger one only deepens the go-back-N
 * bursts that a slow receiver drops, each of which is resent in full.
 */
#define SROCE_WINDOW_MAX	128
/* Smallest window: a few MTU-sized packets keep the link busy. */
#define SROCE_WINDOW_MIN	8
struct sroce_window {
	u32 size;	/* PSNs that may be unacknowledged */
	u32 acked;	/* PSNs acknowledged since size last grew */
	u32 recover;	/* first PSN sent after the last cut */
	bool cut;	/* @recover is set */
};

static inline void sroce_window_reset(struct sroce_window *w)
{
	w->size = SROCE_WINDOW_MAX;
	w->acked = 0;
	w->recover = 0;
	w->cut = false;
}

/* May PSN @next go out while @oldest is the oldest unacknowledged one? */
static inline bool sroce_window_open(const struct sroce_window *w, u32 next,
				     u32 oldest)
{
	return sroce_psn_diff(next, oldest) < (s32)w->size;
}

/*
 * How many packets of a message may go out without asking for an ACK.
 * The responder acknowledges only packets that ask (and a message's
 * last), so the requester must ask at least twice per window: once a
 * window is no longer than the interval, it fills without one ACK on its
 * way and the QP waits for the transport timer, again after every resend,
 * until its retries run out. Asking more often buys nothing: each ACK is
 * a frame the receiver sends and the sender handles, while one ACK per
 * half window already keeps the window open.
 */
static inline u32 sroce_window_ack_every(const struct sroce_window *w)
{
	return w->size / 2;
}

/* @n more PSNs were acknowledged. */
static inline void sroce_window_acked(struct sroce_window *w, u32 n)
{
	if (w->size >= SROCE_WINDOW_MAX)
		return;
	w->acked += n;
	while (w->acked >= w->size && w->size < SROCE_WINDOW_MAX) {
		w->acked -= w->size;
		w->size++;
	}
	if (w->size >= SROCE_WINDOW_MAX)
		w->acked = 0;
}

/*
 * PSN @lost was lost while @next is one past the highest PSN sent (the
 * resend position may be behind it). Returns true when this cut the
 * window.
 */
static inline bool sroce_window_loss(struct sroce_window *w, u32 lost, u32 next)
{
	s32 behind = sroce_psn_diff(w->recover, lost);

	/* Sent before the cut (so at most one full window before it). */
	if (w->cut && behind > 0 && behind <= SROCE_WINDOW_MAX)
		return false;
	w->size = w->size / 2 < SROCE_WINDOW_MIN ? SROCE_WINDOW_MIN : w->size / 2;
	w->acked = 0;
	w->recover = sroce_psn(next);
	w->cut = true;
	return true;
}

#endif /* SROCE_WINDOW_H */
