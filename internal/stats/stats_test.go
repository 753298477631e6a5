package stats

import "testing"

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5},
	} {
		in := append([]float64(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("Median changed its input: %v", c.in)
			}
		}
	}
}

func TestQuantileNearestRank(t *testing.T) {
	v := make([]float64, 100) // 1..100
	for i := range v {
		v[i] = float64(100 - i)
	}
	s := Sorted(v)
	for _, c := range []struct{ q, want float64 }{
		{0.5, 50}, {0.9, 90}, {0.99, 99}, {0.999, 100}, {1, 100}, {0.001, 1}, {0, 1},
	} {
		if got := Quantile(s, c.q); got != c.want {
			t.Errorf("Quantile(1..100, %g) = %g, want %g", c.q, got, c.want)
		}
	}
	if v[0] != 100 {
		t.Errorf("Sorted changed its input")
	}
	// Nearest rank of 300 values at p99 is the 297th: ceil(0.99·300).
	w := make([]float64, 300)
	for i := range w {
		w[i] = float64(i + 1)
	}
	if got := Percentile(w, 99); got != 297 {
		t.Errorf("Percentile(1..300, 99) = %g, want 297", got)
	}
	if Quantile(nil, 0.5) != 0 || Percentile(nil, 99) != 0 || Mean(nil) != 0 {
		t.Errorf("no values should give 0")
	}
	if got := Mean([]float64{1, 2, 6}); got != 3 {
		t.Errorf("Mean(1,2,6) = %g, want 3", got)
	}
}
