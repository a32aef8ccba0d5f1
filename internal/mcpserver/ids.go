package mcpserver

import (
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/sjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
)

// ids are the ids of the requests read and not answered yet: each as the
// client wrote it, and the id the SDK is given for it instead. The SDK
// reads an id into an int64 or a string, and writes that back: 2.7 came
// back as 2, 9007199254740993 as 9007199254740992 (through a float64),
// 2^64 as -2^63, "\u0041" as "A", and two ids it read alike were taken for
// one request. JSON-RPC wants the id back as it came; the SDK has no
// option for it, and its jsonrpc types are closed, so the transport keeps
// the client's ids and gives the SDK numbers of its own, 1, 2, 3..., which
// it reads and writes exactly.
type ids struct {
	last  int64
	wires map[int64]json.RawMessage // the client's id, by ours
	ours  map[string]int64          // ours, by the client's id's bytes
}

func newIDs() *ids { return &ids{wires: map[int64]json.RawMessage{}, ours: map[string]int64{}} }

// read takes in the id of a request, and returns the one the SDK is to
// know it by; false when a request with the same id is still unanswered.
func (m *ids) read(wire json.RawMessage) (jsonrpc.ID, bool) {
	if _, busy := m.ours[string(wire)]; busy {
		return jsonrpc.ID{}, false
	}
	m.last++
	m.wires[m.last] = wire
	m.ours[string(wire)] = m.last
	id, _ := jsonrpc.MakeID(float64(m.last)) // an int64 ID, exact below 2^53
	return id, true
}

// wire is the client's id of the request the SDK knows as id; nil for an
// id that is not one of ours.
func (m *ids) wire(id jsonrpc.ID) json.RawMessage {
	n, ok := id.Raw().(int64)
	if !ok {
		return nil
	}
	return m.wires[n]
}

// answered forgets a request that has its answer.
func (m *ids) answered(id jsonrpc.ID) {
	if wire := m.wire(id); wire != nil {
		delete(m.ours, string(wire))
		delete(m.wires, id.Raw().(int64))
	}
}

// pending is how many requests wait for their answers.
func (m *ids) pending() int { return len(m.wires) }

// cancelled is the params of a notifications/cancelled with the id of the
// request to cancel as the SDK knows it.
func (m *ids) cancelled(params json.RawMessage) json.RawMessage {
	wire := jsonscan.Value{Raw: string(params)}.Get("requestId")
	n, ok := m.ours[wire.Raw]
	if !ok {
		return params
	}
	out, err := sjson.SetRawBytes(params, "requestId", []byte(strconv.FormatInt(n, 10)))
	if err != nil {
		return params
	}
	return out
}
