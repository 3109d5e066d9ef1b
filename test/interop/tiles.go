// An independent tiles client: golang.org/x/mod/sumdb/tlog and sumdb/note (Debian's
// golang-golang-x-mod-dev), nothing of this project. It reads a log served as C2SP tlog-tiles
// (docs/log-format.md, "Tiles") and checks the checkpoint's signature with the note verifier
// key, the inclusion of records from the entry bundles, and the consistency of an older
// checkpoint with the current one. Exits 0 and prints "ok ..." only when all hold.
//
// Usage: go run tiles.go <base URL> <vkey> <older checkpoint file> <seq>...
package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// tlog.Tile.Path is "tile/8/<L>/<N>" (data tiles: "tile/8/data/<N>"); C2SP tlog-tiles drops
// the height and names data tiles "entries".
func c2spPath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), "tile/8/")
	if strings.HasPrefix(p, "data/") {
		p = "entries/" + strings.TrimPrefix(p, "data/")
	}
	return "tile/" + p
}

type reader struct{ prefix string }

func get(url string) ([]byte, error) {
	r, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	if r.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %d", url, r.StatusCode)
	}
	return io.ReadAll(r.Body)
}

func (r reader) Height() int { return 8 }

func (r reader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := get(r.prefix + "/" + c2spPath(t))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (r reader) SaveTiles([]tlog.Tile, [][]byte) {}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

// open verifies a checkpoint note with the vkey and parses its tree.
func open(text []byte, v note.Verifier) tlog.Tree {
	n, err := note.Open(text, note.VerifierList(v))
	if err != nil {
		fail("checkpoint: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] != v.Name() {
		fail("checkpoint: unexpected text %q", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("checkpoint size: %v", err)
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != 32 {
		fail("checkpoint root: %v", err)
	}
	var h tlog.Hash
	copy(h[:], root)
	return tlog.Tree{N: size, Hash: h}
}

func main() {
	if len(os.Args) < 4 {
		fail("usage: tiles <base URL> <vkey> <older checkpoint file> <seq>...")
	}
	prefix := strings.TrimRight(os.Args[1], "/") + "/v1/log"
	v, err := note.NewVerifier(os.Args[2])
	if err != nil {
		fail("vkey: %v", err)
	}
	text, err := get(prefix + "/checkpoint")
	if err != nil {
		fail("%v", err)
	}
	tree := open(text, v)
	older, err := os.ReadFile(os.Args[3])
	if err != nil {
		fail("%v", err)
	}
	old := open(older, v)
	hr := tlog.TileHashReader(tree, reader{prefix})

	// Inclusion: each record read from its entry bundle, proved from the tiles.
	for _, arg := range os.Args[4:] {
		seq, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			fail("seq %q", arg)
		}
		// The entry bundle of seq in the current tree: full, or the partial one at its edge.
		bundle := tlog.Tile{H: 8, L: -1, N: seq / 256, W: 256}
		if (seq/256+1)*256 > tree.N {
			bundle.W = int(tree.N % 256)
		}
		raw, err := reader{prefix}.ReadTiles([]tlog.Tile{bundle})
		if err != nil {
			fail("%v", err)
		}
		b := raw[0]
		var record []byte
		for i, off := int64(0), 0; off < len(b); i++ {
			n := int(b[off])<<8 | int(b[off+1])
			if i == seq%256 {
				record = b[off+2 : off+2+n]
				break
			}
			off += 2 + n
		}
		if record == nil {
			fail("record %d is not in its bundle", seq)
		}
		proof, err := tlog.ProveRecord(tree.N, seq, hr)
		if err != nil {
			fail("prove record %d: %v", seq, err)
		}
		if err := tlog.CheckRecord(proof, tree.N, tree.Hash, seq, tlog.RecordHash(record)); err != nil {
			fail("record %d: %v", seq, err)
		}
	}

	// Consistency of the older checkpoint with the current one.
	proof, err := tlog.ProveTree(tree.N, old.N, hr)
	if err != nil {
		fail("prove tree %d -> %d: %v", old.N, tree.N, err)
	}
	if err := tlog.CheckTree(proof, tree.N, tree.Hash, old.N, old.Hash); err != nil {
		fail("tree %d -> %d: %v", old.N, tree.N, err)
	}
	fmt.Printf("ok %s %d %s records %v consistent with %d\n", v.Name(), tree.N, tree.Hash, os.Args[4:], old.N)
}
