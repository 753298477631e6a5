package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/tcp"
)

// The embedded CDFs have the mean sizes their headers state.
func TestEmbeddedMeans(t *testing.T) {
	for name, want := range map[string]float64{"websearch": 1_661_480, "datamining": 7_470_820} {
		c, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.Mean()-want)/want > 0.01 {
			t.Errorf("%s: mean %.0f, want about %.0f", name, c.Mean(), want)
		}
	}
}

func TestParseRejectsBadRows(t *testing.T) {
	for _, in := range []string{"", "size_bytes,cdf\n100,0.5\n", "100,0.5\n50,1\n", "100,x\n", "100,0.2\n200,0.1\n300,1\n", "-5,1\n",
		// ParseFloat reads these; a distribution of them made the simulator panic.
		"100,0.5\nNaN,1\n", "Inf,1\n", "100,NaN\n200,1\n", "1e30,1\n"} {
		if _, err := Parse("t", strings.NewReader(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// A refusal of the last row says what the file held: no rows at all, or the CDF it ended at
// and where.
func TestParseSaysWhereTheCDFEnds(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "workload t: no data rows",
		"# only a comment\nsize_bytes,cdf\n": "workload t: no data rows",
		"size_bytes,cdf\n100,0.5\n200,0.99\n# end\n": "workload t line 3: the last row ends at CDF 0.99: need rows ending at CDF 1",
	} {
		_, err := Parse("t", strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one saying %q", in, err, want)
		}
	}
}

// Only the first line that is no comment may be a header: a "size" line among the rows is
// refused with its line, not passed over.
func TestParseTakesAHeaderOnlyFirst(t *testing.T) {
	if _, err := Parse("t", strings.NewReader("# c\n\nsize_bytes,cdf\n100,0.5\n200,1\n")); err != nil {
		t.Errorf("header after a comment: %v", err)
	}
	// A spreadsheet's capitals are a header too (review, helper-97: refused as a bad row).
	if c, err := Parse("t", strings.NewReader("Size_Bytes,CDF\n100,0.5\n200,1\n")); err != nil || len(c.Size) != 2 {
		t.Errorf("header Size_Bytes,CDF: %v, want its two rows", err)
	}
	_, err := Parse("t", strings.NewReader("size_bytes,cdf\n100,0.5\nsize_bytes,cdf\n200,1\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a second header: error %v, want line 3 refused", err)
	}
}

// A file a spreadsheet saved as "CSV UTF-8" starts with a byte-order mark, which is read past.
func TestParseReadsPastAByteOrderMark(t *testing.T) {
	c, err := Parse("t", strings.NewReader("\ufeffsize_bytes,cdf\n100,0.5\n200,1\n"))
	if err != nil || len(c.Size) != 2 {
		t.Errorf("a file with a byte-order mark: %v, %+v; want its two rows", err, c)
	}
}

// Poisson arrivals offer the asked load: the wire bytes of the flows over the time they span,
// divided by the hosts' capacity.
func TestGeneratorOffersTheLoad(t *testing.T) {
	c, _ := Load("websearch")
	g := NewGenerator(c, 144, 10*sim.Gbps, 0.5, 1)
	var bytes float64
	var last FlowSpec
	const n = 200_000
	for i := 0; i < n; i++ {
		last = g.Next()
		if last.Src == last.Dst || last.Src < 0 || last.Src >= 144 || last.Dst < 0 || last.Dst >= 144 {
			t.Fatalf("flow %d: %d → %d", i, last.Src, last.Dst)
		}
		bytes += float64(last.Size) * 1500 / 1460
	}
	load := bytes * 8 / last.Start.Seconds() / (144 * 10e9)
	if math.Abs(load-0.5) > 0.02 {
		t.Fatalf("offered load %.3f, want 0.5", load)
	}
}

// Whatever a CDF file holds, Parse refuses it or returns a distribution the simulator can run: a
// positive, finite mean (the arrival rate divides by it), and drawn sizes of whole packets that
// the transports can number.
func FuzzParse(f *testing.F) {
	web, err := embedded.ReadFile("data/websearch.csv")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(web), "100,0.5\n200,1\n", "# c\nsize_bytes,cdf\n1,0\n1e6,1\n", "NaN,1\n",
		"100,NaN\n200,1\n", "Inf,1\n", "1e30,1\n", "3135326351620,1\n", "5e-324,1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse("fuzz", strings.NewReader(in))
		if err != nil {
			return
		}
		if m := c.Mean(); !(m > 0) || math.IsInf(m, 0) {
			t.Fatalf("%q accepted with mean %v", in, m)
		}
		for _, u := range []float64{0, 0.25, 0.5, 0.75, math.Nextafter(1, 0)} {
			size := c.Draw(u)
			if size < tcp.MSS || size%tcp.MSS != 0 || size > MaxSize || tcp.PacketsFor(size) < 1 {
				t.Fatalf("%q accepted: Draw(%v) = %d, %d packets", in, u, size, tcp.PacketsFor(size))
			}
		}
	})
}

// The arrival rate is set from the CDF's mean (NewGenerator), as the pFabric paper's ns-2 scripts
// set theirs (λ = load·C / (meanFlowSize·8/1460·1500)), and sizes are drawn in whole packets,
// rounded up, as those scripts draw theirs (ceil of the interpolated CDF). So the bytes offered
// are above the asked load by the rounding: the exact mean of the drawn sizes over the CDF's mean.
// docs/reproducing.md quotes the figures this logs.
func TestDrawnSizesOfferTheRoundingAboveTheLoad(t *testing.T) {
	for _, name := range Names {
		c, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		exact := c.DrawnMean()
		if !(exact > c.Mean() && exact <= c.Mean()+tcp.MSS) {
			t.Errorf("%s: drawn mean %.1f outside (CDF mean %.1f, + one packet]", name, exact, c.Mean())
		}
		t.Logf("%s: CDF mean %.0f B, drawn sizes' mean %.0f B: offered load %.5f× the asked", name, c.Mean(), exact, exact/c.Mean())
	}
}

// The closed form of the drawn sizes' mean against the draws themselves, on a CDF small enough
// that 10⁶ draws pin their mean to a few bytes (the embedded ones' tails would not, by far): an
// atom below one packet, a segment, an atom between whole packets, a longer segment.
func TestDrawnMeanMatchesTheDraws(t *testing.T) {
	c, err := Parse("t", strings.NewReader("500,0.2\n3000,0.5\n3000,0.6\n20000,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 1_000_000
	var sum, sq float64
	for i := 0; i < n; i++ {
		s := float64(c.Draw(rng.Float64()))
		sum, sq = sum+s, sq+s*s
	}
	mean := sum / n
	se := math.Sqrt((sq/n - mean*mean) / n)
	if exact := c.DrawnMean(); math.Abs(mean-exact) > 4*se {
		t.Errorf("%d draws average %.1f B, the closed form says %.1f (standard error %.1f)", n, mean, exact, se)
	}
}
