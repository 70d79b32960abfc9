package subfilingvfd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Files are the files the subfiling VFD wrote for one HDF5 file, as its .config file
// lists them (layouts.md 5.1).
type Files struct {
	// Stub is the HDF5 file's own path: the file rank 0 opens, whose inode names the others.
	Stub string
	// Config is the path of <file>.subfile_<inode>.config.
	Config string
	// StripeSize, IOCs (aggregator_count) and the subfile count are the config's values.
	StripeSize int64
	IOCs       int
	// Subfiles are the subfiles in stripe order, <file>.subfile_<inode>_<k>_of_<n> in
	// SubfileDir, or next to the stub when they have been moved there.
	Subfiles []string
	// HDF5File and SubfileDir are the absolute paths the VFD recorded.
	HDF5File, SubfileDir string
}

// ConfigPath returns where the VFD keeps the .config file of the HDF5 file at stub:
// <configDir or the stub's directory>/<base>.subfile_<inode of stub>.config.
func ConfigPath(stub, configDir string) (string, error) {
	st, err := os.Stat(stub)
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("%s: no inode number on this system", stub)
	}
	if configDir == "" {
		configDir = filepath.Dir(stub)
	}
	return filepath.Join(configDir, fmt.Sprintf("%s.subfile_%d.config", filepath.Base(stub), sys.Ino)), nil
}

// IsVFDFile reports whether stub has a subfiling VFD .config file in configDir (empty:
// the VFD's H5FD_SUBFILING_CONFIG_FILE_PREFIX, else the stub's directory).
func IsVFDFile(stub, configDir string) bool {
	cfg, err := ConfigPath(stub, defaultConfigDir(configDir))
	if err != nil {
		return false
	}
	_, err = os.Stat(cfg)
	return err == nil
}

func defaultConfigDir(dir string) string {
	if dir == "" {
		return os.Getenv(EnvConfigDir)
	}
	return dir
}

// ReadFiles reads the .config file of the HDF5 file at stub (configDir as IsVFDFile) and
// checks that every subfile it lists exists. A subfile missing from the recorded
// directory is looked for next to the stub (the files moved together).
func ReadFiles(stub, configDir string) (*Files, error) {
	cfg, err := ConfigPath(stub, defaultConfigDir(configDir))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("subfiling VFD file %s: %w", stub, err)
	}
	defer f.Close()
	fs := &Files{Stub: stub, Config: cfg}
	count := -1
	bad := func(line string, why string) error {
		return fmt.Errorf("subfiling VFD config %s: %s: %q", cfg, why, line)
	}
	sc := bufio.NewScanner(f)
	listing := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if listing {
			fs.Subfiles = append(fs.Subfiles, line)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, bad(line, "not key=value before subfile_dir")
		}
		switch k {
		case "stripe_size":
			if fs.StripeSize, err = strconv.ParseInt(v, 10, 64); err != nil || fs.StripeSize <= 0 {
				return nil, bad(line, "bad stripe size")
			}
		case "aggregator_count":
			if fs.IOCs, err = strconv.Atoi(v); err != nil {
				return nil, bad(line, "bad aggregator count")
			}
		case "subfile_count":
			if count, err = strconv.Atoi(v); err != nil || count <= 0 {
				return nil, bad(line, "bad subfile count")
			}
		case "hdf5_file":
			fs.HDF5File = v
		case "subfile_dir":
			fs.SubfileDir, listing = v, true // the subfile names follow
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("subfiling VFD config %s: %w", cfg, err)
	}
	switch {
	case fs.StripeSize == 0 || !listing:
		return nil, fmt.Errorf("subfiling VFD config %s: no stripe_size or subfile_dir line", cfg)
	case count >= 0 && count != len(fs.Subfiles):
		return nil, fmt.Errorf("subfiling VFD config %s: subfile_count=%d but %d subfiles listed", cfg, count, len(fs.Subfiles))
	}
	for i, name := range fs.Subfiles {
		p := filepath.Join(fs.SubfileDir, name)
		if _, err := os.Stat(p); err != nil {
			alt := filepath.Join(filepath.Dir(stub), name)
			if _, aerr := os.Stat(alt); aerr != nil {
				return nil, fmt.Errorf("subfiling VFD file %s: subfile %d of %d: %w", stub, i+1, len(fs.Subfiles), err)
			}
			p = alt
		}
		fs.Subfiles[i] = p
	}
	return fs, nil
}

// subfileRe matches the names the VFD gives a file's subfiles and config.
var subfileRe = regexp.MustCompile(`\.subfile_[0-9]+(_[0-9]+_of_[0-9]+|\.config)$`)

// Remove deletes the HDF5 file at path and every subfile and config file of its name in
// the settings' directories and next to it: a file created again gets a new set (the
// inode, and so the names, may stay the same while the subfile count changes).
func Remove(path string, s Settings) error {
	base := filepath.Base(path)
	dirs := map[string]bool{filepath.Dir(path): true}
	for _, d := range []string{s.SubfileDir, s.ConfigDir} {
		if d != "" {
			dirs[d] = true
		}
	}
	var errs []error
	for d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, base+".subfile_") && subfileRe.MatchString(n[len(base):]) {
				if err := os.Remove(filepath.Join(d, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Fuse writes the logical file the subfiling VFD striped over the subfiles of stub (see
// ReadFiles for configDir) to out, a plain HDF5 file: stripe j of subfile i (0-based, in
// the config's order) goes to offset (i + j·n)·stripe size, as h5fuse copies them. Unlike
// h5fuse, the stub is left as it is, and a missing subfile is an error, not zeros. A
// failed fuse removes out. Serial.
func Fuse(stub, out, configDir string) (err error) {
	fs, err := ReadFiles(stub, configDir)
	if err != nil {
		return err
	}
	w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(out)
		}
	}()
	n := int64(len(fs.Subfiles))
	buf := make([]byte, min(fs.StripeSize, 8<<20))
	for i, name := range fs.Subfiles {
		if err := fuseSubfile(w, name, int64(i), n, fs.StripeSize, buf); err != nil {
			return fmt.Errorf("fuse %s: subfile %s: %w", stub, name, err)
		}
	}
	return nil
}

// fuseSubfile copies subfile i of n's stripes to their logical offsets in w.
func fuseSubfile(w *os.File, name string, i, n, stripe int64, buf []byte) error {
	r, err := os.Open(name)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil {
		return err
	}
	for off := int64(0); off < st.Size(); off += stripe {
		j := off / stripe
		size := min(stripe, st.Size()-off)
		dst := io.NewOffsetWriter(w, (i+j*n)*stripe)
		if _, err := io.CopyBuffer(dst, io.NewSectionReader(r, off, size), buf); err != nil {
			return err
		}
	}
	return nil
}
