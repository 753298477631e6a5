package config

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// wholeKeys are the file's keys that take a whole number, and tableKeys those that take a table
// keyed by a level or a priority. yaml.v3 cuts a number like 1.9 down to 1 when it fills an int,
// and a table may name one level twice ("7" and "07") with either value winning at random; the
// file's node tree is checked for both beside the decoding, which sees neither.
var (
	wholeKeys = map[string]bool{"hosts": true, "mesochronous": true, "vlan_id": true, "default_level": true}
	tableKeys = map[string]bool{"factors": true, "target_rate": true, "priority_levels": true, "dscp": true, "pcp": true}
	// wholeValueTables are the tables whose values are whole numbers too.
	wholeValueTables = map[string]bool{"dscp": true, "pcp": true}
)

// checkNodes checks a parsed file's node tree: whole numbers written as such, and each level or
// priority of a table given once.
func checkNodes(doc *yaml.Node) error {
	top := topLevel(doc)
	for i := 0; i+1 < len(top); i += 2 {
		key, value := top[i].Value, top[i+1]
		switch {
		case wholeKeys[key]:
			if err := checkWhole(key, value); err != nil {
				return err
			}
		case tableKeys[key] && value.Kind == yaml.MappingNode:
			if err := checkTable(key, value); err != nil {
				return err
			}
		}
	}
	return nil
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

// checkWhole refuses a value of key that is not written as a whole number.
func checkWhole(key string, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!int" {
		return fieldError(key, n.Value, "need a whole number")
	}
	return nil
}

// checkTable refuses a table that names one level or priority twice, and, for the tables of
// whole numbers, a value that is not one.
func checkTable(key string, table *yaml.Node) error {
	seen := map[int]string{}
	for i := 0; i+1 < len(table.Content); i += 2 {
		k, v := table.Content[i].Value, table.Content[i+1]
		if n, err := strconv.Atoi(strings.TrimSpace(k)); err == nil {
			if first, ok := seen[n]; ok {
				return fieldError(key, fmt.Sprintf("%q and %q", first, k), fmt.Sprintf("need each key once: both are %d", n))
			}
			seen[n] = k
		}
		if wholeValueTables[key] {
			if err := checkWhole(fmt.Sprintf("%s[%s]", key, k), v); err != nil {
				return err
			}
		}
	}
	return nil
}
