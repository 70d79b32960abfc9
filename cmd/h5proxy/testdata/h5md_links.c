/* An H5MD trajectory as LAMMPS's ch5md writes it (ch5md.c: h5md_create_time_data,
 * h5md_append): rank 0 alone with HDF5's default (serial) driver; each time series is a
 * group of value, step and time, step and time grown by one row per dump along an
 * unlimited axis, and the second series' step and time are hard links to the first's
 * (H5Lcreate_hard, as ch5md links a series to another's time); an empty observables
 * group; the author attribute holds three strings. derive's test reads the file. */
#include <hdf5.h>
#include <mpi.h>

static hid_t series(hid_t loc, const char *name, hid_t type, int cols)
{
	hsize_t dims[2] = {0, (hsize_t)cols}, max[2] = {H5S_UNLIMITED, (hsize_t)cols}, chunk[2] = {1, (hsize_t)cols};
	hid_t s = H5Screate_simple(cols ? 2 : 1, dims, max), p = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(p, cols ? 2 : 1, chunk);
	hid_t d = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, p, H5P_DEFAULT);
	H5Pclose(p);
	H5Sclose(s);
	return d;
}

static void append(hid_t d, int rank, const void *buf, hid_t type, int cols)
{
	hsize_t dims[2], start[2] = {0, 0}, count[2] = {1, (hsize_t)cols};
	hid_t s = H5Dget_space(d);
	H5Sget_simple_extent_dims(s, dims, NULL);
	H5Sclose(s);
	start[0] = dims[0];
	dims[0]++;
	H5Dset_extent(d, dims);
	s = H5Dget_space(d);
	H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL);
	hid_t m = H5Screate_simple(rank, count, NULL);
	H5Dwrite(d, type, m, s, H5P_DEFAULT, buf);
	H5Sclose(m);
	H5Sclose(s);
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		hid_t f = H5Fcreate("traj.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
		hid_t h5md = H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		hid_t str = H5Tcopy(H5T_C_S1);
		H5Tset_size(str, 8);
		hsize_t three = 3;
		hid_t as = H5Screate_simple(1, &three, NULL);
		hid_t a = H5Acreate2(h5md, "author", str, as, H5P_DEFAULT, H5P_DEFAULT);
		const char names[3][8] = {"ada", "bob", "cy"};
		H5Awrite(a, str, names);
		H5Aclose(a);
		H5Sclose(as);
		H5Gclose(h5md);
		hid_t obs = H5Gcreate2(f, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		H5Gclose(obs);
		H5Gclose(H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
		H5Gclose(H5Gcreate2(f, "particles/all", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
		hid_t pos = H5Gcreate2(f, "particles/all/position", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		hid_t vel = H5Gcreate2(f, "particles/all/velocity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		hid_t value = series(pos, "value", H5T_NATIVE_DOUBLE, 3), step = series(pos, "step", H5T_NATIVE_INT, 0),
		      time = series(pos, "time", H5T_NATIVE_DOUBLE, 0), vvalue = series(vel, "value", H5T_NATIVE_DOUBLE, 3);
		H5Lcreate_hard(pos, "step", vel, "step", H5P_DEFAULT, H5P_DEFAULT);
		H5Lcreate_hard(pos, "time", vel, "time", H5P_DEFAULT, H5P_DEFAULT);
		for (int i = 0; i < 3; i++) {
			double x[3] = {i, i + 0.5, i + 0.25}, t = 0.1 * i;
			append(value, 2, x, H5T_NATIVE_DOUBLE, 3);
			append(vvalue, 2, x, H5T_NATIVE_DOUBLE, 3);
			append(step, 1, &i, H5T_NATIVE_INT, 1);
			append(time, 1, &t, H5T_NATIVE_DOUBLE, 1);
		}
		H5Dclose(value);
		H5Dclose(vvalue);
		H5Dclose(step);
		H5Dclose(time);
		H5Gclose(vel);
		H5Gclose(pos);
		H5Tclose(str);
		H5Fclose(f);
	}
	MPI_Finalize();
	return 0;
}
