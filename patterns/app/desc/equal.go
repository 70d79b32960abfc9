package desc

import (
	"fmt"
	"reflect"
)

// Diff names the first place where descriptions a and b differ as written descriptions can
// tell them apart ("" when they do not): positions, key paths, the texts of values not
// written (the schema's defaults), the record of given dataset keys, the source and what
// Parse caches are not compared, and an empty list equals a missing one. Tests compare a
// model with the parse of its text this way (parse(write(m)) equals m).
func Diff(a, b *Description) string {
	return diffOf(reflect.ValueOf(a), reflect.ValueOf(b), "d")
}

var (
	diffPos   = reflect.TypeOf(Pos{})
	diffValue = reflect.TypeOf(Value{})
	diffDesc  = reflect.TypeOf(Description{})
)

// ignored are the fields Diff does not compare, by their struct type.
var ignored = map[reflect.Type]map[string]bool{
	diffDesc:                  {"Source": true, "Dir": true, "progs": true, "loaded": true},
	reflect.TypeOf(Dataset{}): {"set": true},
	diffValue:                 {"Path": true},
}

func diffOf(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path + ": kinds differ"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v against %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return diffOf(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d against %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diffOf(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		for _, k := range a.MapKeys() {
			if !b.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s[%v]: missing in the second", path, k)
			}
			if d := diffOf(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
		for _, k := range b.MapKeys() {
			if !a.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s[%v]: missing in the first", path, k)
			}
		}
	case reflect.Struct:
		t := a.Type()
		if t == diffPos {
			return ""
		}
		if t == diffValue && !a.FieldByName("Set").Bool() && !b.FieldByName("Set").Bool() {
			return "" // neither written: the schema's default either way
		}
		for i := 0; i < a.NumField(); i++ {
			if ignored[t][t.Field(i).Name] {
				continue
			}
			if d := diffOf(a.Field(i), b.Field(i), path+"."+t.Field(i).Name); d != "" {
				return d
			}
		}
	default:
		if fmt.Sprint(a) != fmt.Sprint(b) {
			return fmt.Sprintf("%s: %q against %q", path, fmt.Sprint(a), fmt.Sprint(b))
		}
	}
	return ""
}
