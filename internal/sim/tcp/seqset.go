package tcp

// seqSet is a set of one flow's packet numbers, a bit each: the packets a receiver holds beyond
// the next one it expects, and the packets a SACK sender knows its receiver holds.
type seqSet []uint64

// newSeqSet returns an empty set for a flow of packets packets.
func newSeqSet(packets int32) seqSet { return make(seqSet, (packets+63)/64) }

// has says whether seq is in the set (false beyond the flow, and for a nil set).
func (s seqSet) has(seq int32) bool {
	w := int(seq >> 6)
	return w < len(s) && s[w]&(1<<(seq&63)) != 0
}

// add puts seq in the set and says whether it was not there yet.
func (s seqSet) add(seq int32) bool {
	w, bit := seq>>6, uint64(1)<<(seq&63)
	if s[w]&bit != 0 {
		return false
	}
	s[w] |= bit
	return true
}
