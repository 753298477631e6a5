package testbed_test

import (
	"os"
	"testing"

	"github.com/qjump-net/qjump/internal/testbed/tbtest"
)

func TestMain(m *testing.M) { os.Exit(tbtest.Main(m)) }
