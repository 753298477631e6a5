# fct.tcl: replay a flows.csv of `qjump sim fct --scheme tcp` in ns-2 (2.35) on the same fabric,
# to measure ns-2's speed on exactly the flows our simulator ran (bench/ns2/run drives it).
#
#   ns fct.tcl FLOWS.CSV AGENTS COUNT SALT [FCTFILE]
#
# FLOWS.CSV  our flows.csv (columns id, src, dst, size_bytes, start_us are used)
# AGENTS     oneway: Agent/TCP/Newreno + Agent/TCPSink; full: Agent/TCP/FullTcp/Newreno pairs
# COUNT      1: a queue monitor on every link queue, to count packet-hops and drops (costs time:
#            the timed runs use 0 and take the counts from a counting run, the simulation being
#            deterministic); 0: no instrumentation
# SALT       the seed of our run, which salts our ECMP hash (topology.Fabric.ECMP)
# FCTFILE    optional: one line per flow, "id fct_us timeouts" (FCT at the sender's last ACK)
#
# The fabric is topology.PaperFabric with the tcp scheme's parameters (experiment/scheme.go):
# 9 racks of 16 hosts on 10 Gb/s links, 4 spines at 40 Gb/s, 0.2 µs per link plus 2.5 µs of host
# delay on each host link (2.7 µs), drop-tail queues holding 150 waiting packets everywhere
# (host NICs too), 1460-byte payloads with 40-byte headers, 40-byte ACKs, one ACK per packet,
# initial window 12, minimum RTO 200 µs, maximum RTO 64 s, NewReno.
#
# It prints one line of key=value figures; run_ms times `$ns run` alone (the packet phase),
# setup_ms everything before it (reading the flows, building the fabric, routes and agents).
#
# Diagnostics, from the environment (none is set by bench/ns2/run; each slows the run):
# NEWRENO_CHANGES1=0|1  Agent/TCP/Newreno's newreno_changes1_ (one-way agents; ns-2's default 1,
#                       the Impatient variant: only a recovery's first partial ACK restarts the
#                       timer; 0, Slow-but-Steady, as FullTcp and ours)
# POLL_FLOW=ID          print that flow's sender state (cwnd_, ssthresh_, ack_, t_seqno_) each time
#                       its timeouts (nrexmit_) change, polled every 2 µs from its start
# TRACE_HOST=H TRACE_FILE=F  ns-2's trace of host H's NIC queue (enqueue, dequeue, drop, with the
#                       flow id and sequence number of every packet) into F

set t_start [clock microseconds]
if {$argc < 4} {
	puts stderr "usage: ns fct.tcl FLOWS.CSV oneway|full COUNT(0|1) SALT \[FCTFILE\]"
	exit 2
}
lassign $argv flowsfile agents count salt fctfile
if {$agents ne "oneway" && $agents ne "full"} {
	puts stderr "agents: need oneway or full, got $agents"
	exit 2
}

set racks 9
set hpr 16
set spines 4
set hosts [expr {$racks * $hpr}]
set edge_bw 10Gb
set core_bw 40Gb
set edge_delay 2.7e-6 ;# LinkDelay 0.2 µs + HostDelay 2.5 µs
set core_delay 0.2e-6

# ns-2's DropTail drops an arrival when the waiting packets plus it reach limit_ (drop-tail.cc:
# q_->length() + 1 >= qlim_), so limit_ N holds N-1 waiting packets; ours holds Buffer = 150
# waiting packets besides the one on the wire.
Queue set limit_ 151

Agent/TCP set packetSize_ 1460 ;# payload; one-way TCP adds tcpip_base_hdr_size_ (40)
Agent/TCP set tcpip_base_hdr_size_ 40
Agent/TCP set windowInit_ 12
Agent/TCP set window_ 1000000 ;# no receive window in ours: the sender's cwnd alone limits
Agent/TCP set maxcwnd_ 0
Agent/TCP set syn_ false ;# no SYN exchange modelled: ours starts with data
Agent/TCP set minrto_ 0.0002
Agent/TCP set rtxcur_init_ 0.0002 ;# ours starts at the minimum RTO
Agent/TCP set maxrto_ 64
Agent/TCP set tcpTick_ 0.000001
Agent/TCP set slow_start_restart_ false
Agent/TCP set windowOption_ 0
Agent/TCP/FullTcp set segsize_ 1460
Agent/TCP/FullTcp set nodelay_ true ;# no Nagle
Agent/TCP/FullTcp set segsperack_ 1 ;# an ACK per packet, as the pFabric scripts
Agent/TCP/FullTcp set interval_ 0.000006
if {[info exists env(NEWRENO_CHANGES1)]} {
	Agent/TCP/Newreno set newreno_changes1_ $env(NEWRENO_CHANGES1)
}

set ns [new Simulator]
$ns rtproto Manual ;# routes installed below: per-flow ECMP needs them

# Nodes: hosts 0..143, then the top-of-rack switches, then the spines.
for {set h 0} {$h < $hosts} {incr h} { set host($h) [$ns node] }
for {set r 0} {$r < $racks} {incr r} { set tor($r) [$ns node] }
for {set s 0} {$s < $spines} {incr s} { set spine($s) [$ns node] }

set links {}
for {set h 0} {$h < $hosts} {incr h} {
	set r [expr {$h / $hpr}]
	$ns duplex-link $host($h) $tor($r) $edge_bw $edge_delay DropTail
	lappend links $host($h) $tor($r) $tor($r) $host($h)
}
for {set r 0} {$r < $racks} {incr r} {
	for {set s 0} {$s < $spines} {incr s} {
		$ns duplex-link $tor($r) $spine($s) $core_bw $core_delay DropTail
		lappend links $tor($r) $spine($s) $spine($s) $tor($r)
	}
}

# Routes. A host sends everything to its ToR. A ToR sends its own rack's hosts down and the rest
# up through a per-flow classifier (Classifier/Hash/Fid, keyed by the packets' flow id) that
# holds each flow's spine; a spine sends down to the destination's rack.
for {set h 0} {$h < $hosts} {incr h} {
	set r [expr {$h / $hpr}]
	[$host($h) entry] defaulttarget [[$ns link $host($h) $tor($r)] head]
}
for {set r 0} {$r < $racks} {incr r} {
	for {set i 0} {$i < $hpr} {incr i} {
		set d [expr {$r * $hpr + $i}]
		$tor($r) add-route [$host($d) id] [[$ns link $tor($r) $host($d)] head]
	}
	set up($r) [new Classifier/Hash/Fid 64]
	for {set s 0} {$s < $spines} {incr s} {
		$up($r) install $s [[$ns link $tor($r) $spine($s)] head]
	}
	$up($r) set default_ 0
	[$tor($r) entry] defaulttarget $up($r)
}
for {set s 0} {$s < $spines} {incr s} {
	for {set d 0} {$d < $hosts} {incr d} {
		$spine($s) add-route [$host($d) id] [[$ns link $spine($s) $tor([expr {$d / $hpr}])] head]
	}
}

# Our ECMP (topology.Fabric.ECMP): splitmix64's finaliser of (flow<<1 | reverse) ^ salt, modulo
# the spines, for each direction of a flow.
proc mix {x} {
	set m 0xFFFFFFFFFFFFFFFF
	set x [expr {($x + 0x9e3779b97f4a7c15) & $m}]
	set x [expr {(($x ^ ($x >> 30)) * 0xbf58476d1ce4e5b9) & $m}]
	set x [expr {(($x ^ ($x >> 27)) * 0x94d049bb133111eb) & $m}]
	return [expr {$x ^ ($x >> 31)}]
}
proc ecmp {flow reverse salt nspines} {
	return [expr {[mix [expr {(($flow << 1) | $reverse) ^ $salt}]] % $nspines}]
}

# Flow completion: one-way TCP calls `done` when the last packet is acknowledged; FullTcp calls
# `done_data` when its send buffer is empty and acknowledged (signal_on_empty_).
set ndone 0
set nflows 0
proc flow-done {agent} {
	global ns ndone nflows fin
	set fin([$agent set fid_]) [$ns now]
	incr ndone
	if {$ndone == $nflows} { $ns halt }
}
Agent/TCP instproc done {} { flow-done $self }
Agent/TCP/FullTcp instproc done_data {} { flow-done $self }

# Read the flows.
set f [open $flowsfile r]
gets $f header
set cols [split $header ,]
foreach name {id src dst size_bytes start_us} {
	set col($name) [lsearch -exact $cols $name]
	if {$col($name) < 0} { puts stderr "$flowsfile: no column $name"; exit 1 }
}
set last 0.0
while {[gets $f line] >= 0} {
	if {$line eq ""} continue
	set v [split $line ,]
	set id [lindex $v $col(id)]
	set src [lindex $v $col(src)]
	set dst [lindex $v $col(dst)]
	set size [lindex $v $col(size_bytes)]
	set start [expr {[lindex $v $col(start_us)] * 1e-6}]
	set start_of($id) $start
	if {$start > $last} { set last $start }
	set rs [expr {$src / $hpr}]
	set rd [expr {$dst / $hpr}]
	if {$rs != $rd} {
		$up($rs) set-hash auto 0 0 $id [ecmp $id 0 $salt $spines]
		$up($rd) set-hash auto 0 0 $id [ecmp $id 1 $salt $spines]
	}
	if {$agents eq "oneway"} {
		set snd [new Agent/TCP/Newreno]
		set rcv [new Agent/TCPSink]
		set pkts [expr {($size + 1459) / 1460}]
		set cmd "$snd advanceby $pkts"
	} else {
		set snd [new Agent/TCP/FullTcp/Newreno]
		set rcv [new Agent/TCP/FullTcp/Newreno]
		$snd set signal_on_empty_ true
		set cmd "$snd advance-bytes $size"
	}
	$snd set fid_ $id
	$rcv set fid_ $id
	$ns attach-agent $host($src) $snd
	$ns attach-agent $host($dst) $rcv
	$ns connect $snd $rcv
	if {$agents eq "full"} { $rcv listen }
	set sender($id) $snd
	$ns at $start $cmd
	incr nflows
}
close $f

# Like ours, give up 10 simulated seconds after the last arrival.
$ns at [expr {$last + 10.0}] "$ns halt"

if {$count} {
	set qmons {}
	foreach {a b} $links { lappend qmons [$ns monitor-queue $a $b ""] }
}

# A flow's timeouts as they happen (POLL_FLOW).
proc poll {id last} {
	global ns sender
	set a $sender($id)
	set rx [$a set nrexmit_]
	if {$rx != $last} {
		puts [format "%.3f us flow %d timeouts %d cwnd %s ssthresh %s ack %s seqno %s" \
			[expr {[$ns now] * 1e6}] $id $rx [$a set cwnd_] [$a set ssthresh_] [$a set ack_] [$a set t_seqno_]]
	}
	$ns at [expr {[$ns now] + 2e-6}] "poll $id $rx"
}
if {[info exists env(POLL_FLOW)]} {
	$ns at $start_of($env(POLL_FLOW)) "poll $env(POLL_FLOW) 0"
}
if {[info exists env(TRACE_HOST)]} {
	set trf [open $env(TRACE_FILE) w]
	$ns trace-queue $host($env(TRACE_HOST)) $tor([expr {$env(TRACE_HOST) / $hpr}]) $trf
}

set t_run [clock microseconds]
$ns run
set t_end [clock microseconds]
if {[info exists trf]} { close $trf }

set timeouts 0
set datapkts 0
set rexmitpkts 0
foreach id [array names sender] {
	incr timeouts [$sender($id) set nrexmit_]
	incr datapkts [$sender($id) set ndatapack_]
	incr rexmitpkts [$sender($id) set nrexmitpack_]
}
set out "ns2 agents=$agents flows=$nflows done=$ndone sim_s=[format %.6f [$ns now]]"
append out " setup_ms=[format %.1f [expr {($t_run - $t_start) / 1e3}]]"
append out " run_ms=[format %.1f [expr {($t_end - $t_run) / 1e3}]]"
append out " timeouts=$timeouts datapkts=$datapkts rexmitpkts=$rexmitpkts"
if {$count} {
	set hops 0
	set drops 0
	foreach q $qmons {
		incr hops [$q set pdepartures_]
		incr drops [$q set pdrops_]
	}
	append out " hops=$hops drops=$drops"
}
puts $out
if {$fctfile ne ""} {
	set f [open $fctfile w]
	foreach id [lsort -integer [array names sender]] {
		set fct 0
		if {[info exists fin($id)]} { set fct [format %.3f [expr {($fin($id) - $start_of($id)) * 1e6}]] }
		puts $f "$id $fct [$sender($id) set nrexmit_]"
	}
	close $f
}
exit 0
