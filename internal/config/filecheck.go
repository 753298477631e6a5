package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// wholeKeys are the file's keys that take a whole number, textKeys those that take one value
// written as text ("10G", "police"), and tableKeys those that take a table keyed by a level or a
// priority. The file's node tree is checked against them before it is decoded: decoding names Go
// types ("cannot unmarshal !!str `12` into int"), cuts a number like 1.9 down to 1 when it fills
// an int, lets a table name one level twice ("7" and "07") with either value winning at random,
// and refuses a key given twice in words of its own.
var (
	wholeKeys = map[string]bool{"hosts": true, "mesochronous": true, "vlan_id": true, "default_level": true}
	textKeys  = map[string]bool{"rate": true, "packet": true, "epsilon": true, "mode": true, "mark": true}
	tableKeys = map[string]bool{"factors": true, "target_rate": true, "priority_levels": true, "dscp": true, "pcp": true}
	// wholeValueTables are the tables whose values are whole numbers too.
	wholeValueTables = map[string]bool{"dscp": true, "pcp": true}
)

// checkNodes checks a parsed file's node tree: each key given once, each value of the kind its
// key takes (whole numbers written as such), and each level or priority of a table given once.
// Keys it does not know are left to decoding, which refuses them naming the nearest.
func checkNodes(doc *yaml.Node) error {
	top := topLevel(doc)
	seen := map[string]int{}
	for i := 0; i+1 < len(top); i += 2 {
		key, value := top[i].Value, top[i+1]
		if line, ok := seen[key]; ok {
			return fieldError(key, fmt.Sprintf("given at lines %d and %d", line, top[i].Line), "need each key once")
		}
		seen[key] = top[i].Line
		if err := checkValue(key, value); err != nil {
			return err
		}
	}
	return nil
}

// checkValue refuses a value of a top-level key that is not of the kind the key takes.
func checkValue(key string, value *yaml.Node) error {
	value = resolved(value)
	switch {
	case key == "factors" && (value.ShortTag() == "!!null" || value.Kind == yaml.MappingNode && len(value.Content) == 0):
		// "factors:" with nothing read as no key, the default 7: 1, 0: unlimited, while "factors: {}"
		// was refused: both are a table of no levels, which no configuration has.
		empty := "{}"
		if value.Kind == yaml.ScalarNode {
			empty = value.Value
		}
		return fieldError(key, empty, "need at least one level, such as {7: 1, 0: unlimited}; leave factors out for that default")
	case value.ShortTag() == "!!null": // "key:" with nothing: decoding leaves the key unset
		return nil
	case wholeKeys[key]:
		return checkWhole(key, value)
	case textKeys[key] && value.Kind != yaml.ScalarNode:
		return fieldError(key, kindOf(value), "need one value, such as "+textExample[key])
	case key == "autoclass" && !isBool(value):
		return fieldError(key, scalarOrKind(value), "need true or false")
	case tableKeys[key] && value.Kind != yaml.MappingNode:
		return fieldError(key, scalarOrKind(value), "need a table, one \"level: value\" a line under it (docs/configuration.md)")
	case tableKeys[key]:
		return checkTable(key, value)
	}
	return nil
}

// resolved is the node an alias stands for (hosts: *n), which decoding reads in its place.
func resolved(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isBool says whether decoding takes n as a bool: true and false, and YAML 1.1's yes, no, on and
// off, which yaml.v3 still reads into a bool.
func isBool(n *yaml.Node) bool {
	var b bool
	return n.Kind == yaml.ScalarNode && n.Decode(&b) == nil
}

// textExample is an example of each of textKeys' values, for a refusal of a list or a table.
var textExample = map[string]string{"rate": "10G", "packet": "9k or auto", "epsilon": "4us",
	"mode": "police or shape", "mark": "dscp, pcp, both or none"}

// tableExample is an example of a value in each of tableKeys' tables of text.
var tableExample = map[string]string{"factors": "1 or unlimited", "target_rate": "5G", "priority_levels": "7"}

// kindOf names a value that is not a scalar, as a refusal quotes it.
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a table"
	}
	return n.Value
}

// scalarOrKind is a scalar value as written, or what kind of value it is.
func scalarOrKind(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return kindOf(n)
}

// topLevel is the keys and values of the file's top-level mapping, in turn; none when the file
// is empty, or not a mapping (which decoding refuses, saying what is wrong).
func topLevel(doc *yaml.Node) []*yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return doc.Content[0].Content
}

// scalarText is the value the file gives key at the top level as written, nil where it gives
// none or no scalar: yaml.v3 fills a bool from yes and on as from true, and loses the word.
func scalarText(doc *yaml.Node, key string) *string {
	top := topLevel(doc)
	for i := 0; i+1 < len(top); i += 2 {
		if top[i].Value == key && top[i+1].Kind == yaml.ScalarNode {
			s := top[i+1].Value
			return &s
		}
	}
	return nil
}

// checkWhole refuses a value of key that is not written as a whole number, or one beyond what the
// configuration holds (a 64-bit integer).
func checkWhole(key string, n *yaml.Node) error {
	tag := n.ShortTag()
	switch {
	case n.Kind != yaml.ScalarNode:
		return fieldError(key, scalarOrKind(n), "need a whole number")
	case tag == "!!str" && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && isInt(n.Value):
		return fieldError(key, n.Value, "need a whole number, written without quotes (quoted, YAML reads text)")
	case tag != "!!int" && !(tag == "!!float" && allDigits(n.Value)): // YAML tags a plain integer beyond 64 bits a float
		return fieldError(key, n.Value, "need a whole number")
	case !isInt(n.Value) && strings.HasPrefix(n.Value, "-"):
		return fieldError(key, n.Value, fmt.Sprintf("need a whole number of at least %d", math.MinInt64))
	case !isInt(n.Value):
		return fieldError(key, n.Value, fmt.Sprintf("need a whole number of at most %d", math.MaxInt64))
	}
	return nil
}

// isInt says whether s is an integer of 64 bits as YAML writes one (0x10, 0o17, 1_000 included).
func isInt(s string) bool {
	_, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
	return err == nil
}

// allDigits says whether s is a whole number too large for yaml to call one (it tags
// 99999999999999999999 as a float), optionally signed.
func allDigits(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// checkTable refuses a table that names one level or priority twice, and, for the tables of
// whole numbers, a value that is not one.
func checkTable(key string, table *yaml.Node) error {
	seen := map[int]string{}
	for i := 0; i+1 < len(table.Content); i += 2 {
		kn, v := table.Content[i], resolved(table.Content[i+1])
		if kn.ShortTag() == "!!merge" {
			if err := checkMerged(key, v); err != nil {
				return err
			}
			continue
		}
		k := kn.Value
		if n, err := strconv.Atoi(strings.TrimSpace(k)); err == nil {
			if first, ok := seen[n]; ok {
				return fieldError(key, fmt.Sprintf("%q and %q", first, k), fmt.Sprintf("need each key once: both are %d", n))
			}
			seen[n] = k
		}
		entry := fmt.Sprintf("%s[%s]", key, k)
		if wholeValueTables[key] {
			if err := checkWhole(entry, v); err != nil {
				return err
			}
		} else if v.Kind != yaml.ScalarNode {
			return fieldError(entry, kindOf(v), "need one value, such as "+tableExample[key])
		}
	}
	return nil
}

// checkMerged checks the tables a merge key (<<: *defaults, or a list of them) brings into a
// table, each as a table of its own: the table's own entries override what a merge brings, as
// YAML says, so a level given in both is no duplicate.
func checkMerged(key string, v *yaml.Node) error {
	switch v.Kind {
	case yaml.MappingNode:
		return checkTable(key, v)
	case yaml.SequenceNode:
		for _, m := range v.Content {
			if m = resolved(m); m.Kind == yaml.MappingNode {
				if err := checkTable(key, m); err != nil {
					return err
				}
			}
		}
	}
	return nil // anything else is decoding's to refuse
}
