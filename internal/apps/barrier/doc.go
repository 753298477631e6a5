// Package barrier is a barrier-synchronisation benchmark in the style of Naiad's (the paper's
// Fig. 3c): K participants, one per host, joined by a full mesh of TCP connections (Naiad's
// transport). In every round each participant sends one small message to every other and waits
// for theirs; the round's barrier latency is the time from its own send to the last peer's
// message, on the monotonic clock. A round starts as soon as the previous one ends (or after
// Interval), so a participant can receive a peer's next-round message early; it counts toward
// that next round.
//
// A participant whose run ends (rounds done, or its time up) tells its peers, who end too; a peer
// that vanishes without saying so, or a round that takes longer than Timeout, is an error that
// names the participant, never a hang.
package barrier
