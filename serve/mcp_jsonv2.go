//go:build goexperiment.jsonv2

package serve

import (
	"encoding/json/jsontext"
	"encoding/json/v2"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MarshalJSONTo writes a read's result straight into the SDK's encoder
// when encoding/json runs on json/v2, as in the release: a file's text is
// then quoted once, where the SDK writes its message, rather than encoded
// into bytes of its own that the SDK checks again. It writes what
// MarshalJSON does (TestCompleteJSONv2).
func (c complete) MarshalJSONTo(enc *jsontext.Encoder) error {
	r, ok := c.Result.(*mcp.ReadResourceResult)
	if !ok || r.InputRequests != nil || r.RequestState != "" {
		data, err := c.MarshalJSON()
		if err != nil {
			return err
		}
		return enc.WriteValue(data)
	}
	// The members of the SDK's ReadResourceResult.MarshalJSON, in its
	// order, with resultType last as MarshalJSON adds it.
	return json.MarshalEncode(enc, struct {
		Meta mcp.Meta `json:"_meta,omitempty"`
		mcp.Cacheable
		Contents   []*mcp.ResourceContents `json:"contents"`
		ResultType string                  `json:"resultType"`
	}{r.Meta, r.Cacheable, r.Contents, resultComplete})
}
