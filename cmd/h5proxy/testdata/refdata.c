/* refdata: datasets of references as a serial writer makes them (examples/corpus/features.c's
 * features_serial.h5, the H5MD/ch5md way: rank 0 alone through the default driver): a compact
 * table, a dataset of region references into it and a dataset of object references to the
 * table and to the regions, each written whole with H5S_ALL from references H5Rcreate made.
 * Writes refs.h5 in the working directory. */
#include <hdf5.h>

int main(void) {
    hid_t f = H5Fcreate("refs.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t n = 4;
    hid_t s = H5Screate_simple(1, &n, NULL), p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(p, H5D_COMPACT);
    hid_t d = H5Dcreate2(f, "table", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    int v[4] = {1, 2, 3, 4};
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Pclose(p);
    hdset_reg_ref_t rref[2];
    hsize_t start = 0, count = 2;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &count, NULL);
    H5Rcreate(&rref[0], f, "/table", H5R_DATASET_REGION, s);
    start = 2;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &count, NULL);
    H5Rcreate(&rref[1], f, "/table", H5R_DATASET_REGION, s);
    H5Sclose(s);
    n = 2;
    s = H5Screate_simple(1, &n, NULL);
    d = H5Dcreate2(f, "regions", H5T_STD_REF_DSETREG, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_STD_REF_DSETREG, H5S_ALL, H5S_ALL, H5P_DEFAULT, rref);
    H5Dclose(d);
    hobj_ref_t oref[2];
    H5Rcreate(&oref[0], f, "/table", H5R_OBJECT, -1);
    H5Rcreate(&oref[1], f, "/regions", H5R_OBJECT, -1);
    d = H5Dcreate2(f, "objs", H5T_STD_REF_OBJ, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, oref);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
    return 0;
}
