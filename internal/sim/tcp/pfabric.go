package tcp

// PFabric is pFabric's minimal rate control at the hosts (Alizadeh et al., SIGCOMM 2013, §4.2):
// every data packet carries the flow's remaining size as its priority, flows start at line rate
// (an initial window of one bandwidth-delay product), there is no fast retransmission (Config:
// FastRetransmit off) and a small fixed timeout (Config: FixedRTO) does the loss recovery, with
// selective acknowledgements (Config: SACK) so that a timeout resends only what was lost; window
// growth is TCP's, capped (Config: MaxCwnd). The pFabric code the QJump authors ran
// (github.com/camsas/qjump-ns2, pfabric.patch: MinTcpAgent, a SackFullTcpAgent, with
// prio_scheme_ 2) does the same; its probe mode after five timeouts in a row is not modelled.
type PFabric struct{ Reno }

// Priority is the flow's remaining bytes: what the receiver is not known to hold, neither
// acknowledged nor SACKed (prio_scheme_ 2: maxseq − highest_ack − the scoreboard's total).
func (PFabric) Priority(s *Sender) int64 {
	return max(s.outstanding(), 1)
}
