// Command ferretdb runs FerretDB v1 with its SQLite backend as an embedded library.
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
	flag.Parse()

	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb: -data-dir is required (an absolute path to an existing directory)")
		os.Exit(2)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Handler:   "sqlite",
		SQLiteURL: "file:" + *dataDir + "/",
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	fmt.Printf("ferretdb listening on %s, data in %s\n", *listen, *dataDir)
	f.Run(ctx)
}
