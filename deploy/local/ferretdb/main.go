// Command ferretdb runs FerretDB v1 as an embedded library, on its SQLite backend (-data-dir) or its
// PostgreSQL one (-postgresql-url), which answers filters on any field in PostgreSQL itself.
//
// `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` builds a binary that panics at
// start-up (its version file is not part of the module zip, FerretDB issue #2982); embedding the
// library skips that check. Used only for local runs and tests, never in production.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "host:port to accept MongoDB wire connections on")
	dataDir := flag.String("data-dir", "", "absolute path of an existing directory for the SQLite files")
	postgresqlURL := flag.String("postgresql-url", "", "postgres:// URL of a database: the PostgreSQL backend instead of SQLite")
	flag.Parse()

	config := &ferretdb.Config{Listener: ferretdb.ListenerConfig{TCP: *listen}}
	switch {
	case *postgresqlURL != "":
		config.Handler = "postgresql"
		config.PostgreSQLURL = *postgresqlURL
	case *dataDir != "":
		config.Handler = "sqlite"
		config.SQLiteURL = "file:" + *dataDir + "/"
	default:
		fmt.Fprintln(os.Stderr, "ferretdb: -data-dir (an absolute path to an existing directory) or -postgresql-url is required")
		os.Exit(2)
	}

	f, err := ferretdb.New(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	fmt.Printf("ferretdb listening on %s, %s backend\n", *listen, config.Handler)
	f.Run(ctx)
}
