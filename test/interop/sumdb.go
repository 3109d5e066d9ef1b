// The Go toolchain's own checksum database client, golang.org/x/mod/sumdb.Client (Debian's
// golang-golang-x-mod-dev), nothing of this project, pointed at a server over HTTP. It looks up
// module versions as `go get` does: each lookup is checked against the signed tree note with
// the vkey, the record proved in the tree from the hash tiles, and every new tree note proved
// consistent with the latest one the client knew, kept in the state directory between runs as
// the go command keeps it.
//
// Usage: go run sumdb.go <base URL> <vkey> <state dir> <module>@<version>...
//
// Prints each go.sum line found ("<module> <version> h1:..." then the go.mod's) and exits 0.
// A server caught misbehaving (sumdb.ErrSecurity) prints the client's security message to
// stderr and exits 3; any other failure prints "FAIL: ..." and exits 1.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/sumdb"
)

// ops is sumdb.ClientOps over HTTP and a state directory: the configuration (the vkey and the
// latest tree note) and a cache of the tiles the client authenticated. Lookups are not cached,
// so each run asks the server it is pointed at.
type ops struct {
	url, vkey, dir string
	security       bool // SecurityError was called
}

func (o *ops) ReadRemote(path string) ([]byte, error) {
	r, err := http.Get(o.url + path)
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if r.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s: %s", path, r.Status, strings.TrimSpace(string(body)))
	}
	return body, nil
}

func (o *ops) ReadConfig(file string) ([]byte, error) {
	if file == "key" {
		return []byte(o.vkey), nil
	}
	data, err := os.ReadFile(filepath.Join(o.dir, "config", file))
	if errors.Is(err, os.ErrNotExist) {
		return []byte{}, nil // no tree known yet: start from the empty one
	}
	return data, err
}

func (o *ops) WriteConfig(file string, old, new []byte) error {
	name := filepath.Join(o.dir, "config", file)
	cur, err := o.ReadConfig(file)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return sumdb.ErrWriteConflict
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, new, 0o644)
}

func (o *ops) ReadCache(file string) ([]byte, error) {
	if strings.Contains(file, "/lookup/") {
		return nil, os.ErrNotExist
	}
	return os.ReadFile(filepath.Join(o.dir, "cache", file))
}

func (o *ops) WriteCache(file string, data []byte) {
	if strings.Contains(file, "/lookup/") {
		return
	}
	name := filepath.Join(o.dir, "cache", file)
	if os.MkdirAll(filepath.Dir(name), 0o755) == nil {
		os.WriteFile(name, data, 0o644)
	}
}

func (o *ops) Log(msg string) { fmt.Fprintln(os.Stderr, msg) }

func (o *ops) SecurityError(msg string) {
	o.security = true
	fmt.Fprintln(os.Stderr, msg)
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "FAIL: usage: sumdb <base URL> <vkey> <state dir> <module>@<version>...")
		os.Exit(1)
	}
	o := &ops{url: strings.TrimRight(os.Args[1], "/"), vkey: os.Args[2], dir: os.Args[3]}
	client := sumdb.NewClient(o)
	for _, arg := range os.Args[4:] {
		i := strings.LastIndex(arg, "@")
		if i < 0 {
			fmt.Fprintf(os.Stderr, "FAIL: %q is not <module>@<version>\n", arg)
			os.Exit(1)
		}
		for _, vers := range []string{arg[i+1:], arg[i+1:] + "/go.mod"} {
			lines, err := client.Lookup(arg[:i], vers)
			// Lookup wraps the error with %v, so ErrSecurity is found by its text (and by the call to SecurityError).
			if o.security || err != nil && strings.Contains(err.Error(), sumdb.ErrSecurity.Error()) {
				fmt.Fprintf(os.Stderr, "ErrSecurity: %v\n", err)
				os.Exit(3)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
				os.Exit(1)
			}
			for _, l := range lines {
				fmt.Println(l)
			}
		}
	}
}
