package agent_test

import (
	"os"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
