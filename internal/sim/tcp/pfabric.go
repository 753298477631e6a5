package tcp

// PFabric is pFabric's minimal rate control at the hosts (Alizadeh et al., SIGCOMM 2013, §4.2):
// every data packet carries the flow's remaining size as its priority, flows start at line rate
// (an initial window of one bandwidth-delay product), there is no fast retransmission (Config:
// FastRetransmit off) and a small fixed timeout (Config: FixedRTO) does the loss recovery; window
// growth is TCP's.
type PFabric struct{ Reno }

// Priority is the flow's remaining bytes: what is not yet acknowledged.
func (PFabric) Priority(s *Sender) int64 {
	rem := s.flow.Size - int64(s.una)*MSS
	if rem < 1 {
		rem = 1
	}
	return rem
}
