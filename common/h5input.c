/* h5input.c — what an HDF5 input may hold: its datasets are read only from
 * the file itself. An external link, external raw-data files or a virtual
 * dataset would make bfs2d open another file, which may be a FIFO (a read
 * that waits forever) or a device; they are refused, naming the object. A
 * dataset stored with a filter this HDF5 lacks is named as such. */
#include <stdio.h>
#include <string.h>
#include "h5util.h"

/* The external link last refused, for the message of the refused open. */
static char elink_target[1024];

static herr_t deny_elink(const char *parent_file, const char *parent_group, const char *child_file,
                         const char *child_obj, unsigned *acc_flags, hid_t fapl, void *op_data)
{
	(void)parent_file, (void)parent_group, (void)acc_flags, (void)fapl, (void)op_data;
	snprintf(elink_target, sizeof elink_target, "%s:%s", child_file ? child_file : "?",
	         child_obj ? child_obj : "?");
	return -1; /* before the target file is opened */
}

hid_t b2_h5_lapl(void)
{
	static hid_t lapl = -1;
	if (lapl < 0) {
		/* a dataset-access list is a link-access list too: one serves
		 * H5Lexists and H5Dopen2 */
		lapl = H5Pcreate(H5P_DATASET_ACCESS);
		if (lapl >= 0 && H5Pset_elink_cb(lapl, deny_elink, NULL) < 0) {
			H5Pclose(lapl);
			lapl = -1;
		}
	}
	return lapl >= 0 ? lapl : H5P_DEFAULT;
}

/* The dataset's storage: in this file, through filters this HDF5 has. */
static int check_storage(hid_t dset, const char *name, const char *where)
{
	int error = 0;
	hid_t dcpl = H5Dget_create_plist(dset);
	if (dcpl < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot read how dataset %s is stored", where, name);
	if (H5Pget_layout(dcpl) == H5D_VIRTUAL)
		B2_FAIL0(B2_EDATA, "%s: dataset %s is a virtual dataset (its data lies in other files): "
		         "bfs2d reads only data stored in the file itself", where, name);
	if (H5Pget_external_count(dcpl) > 0) {
		char ext[256] = "?";
		off_t off;
		hsize_t size;
		H5Pget_external(dcpl, 0, sizeof ext, ext, &off, &size);
		B2_FAIL0(B2_EDATA, "%s: dataset %s keeps its data in external files (%s, ...): bfs2d "
		         "reads only data stored in the file itself", where, name, ext);
	}
	int nf = H5Pget_nfilters(dcpl);
	for (int i = 0; i < nf; i++) {
		unsigned flags = 0, cfg = 0;
		size_t ncd = 0;
		char fname[128] = "";
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, sizeof fname, fname, &cfg);
		if (id < 0)
			B2_FAIL0(B2_EDATA, "%s: cannot read the filters of dataset %s", where, name);
		if (H5Zfilter_avail(id) <= 0)
			B2_FAIL0(B2_EDATA, "%s: dataset %s is stored with HDF5 filter %d%s%s%s, which this build "
			         "of HDF5 lacks: rewrite it without that filter (or with deflate)", where, name,
			         (int)id, fname[0] ? " (" : "", fname, fname[0] ? ")" : "");
	}
done:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return error;
}

int b2_dset_open_any(hid_t *dset, hid_t loc, const char *name, const char *where)
{
	int error = 0;
	hid_t lapl = b2_h5_lapl();
	*dset = -1;
	elink_target[0] = 0;
	htri_t has = H5Lexists(loc, name, lapl);
	if (has > 0)
		*dset = H5Dopen2(loc, name, lapl);
	if (*dset < 0 && elink_target[0])
		B2_FAIL0(B2_EDATA, "%s: dataset %s is reached through an external link (to %s): bfs2d "
		         "reads only objects stored in the file itself", where, name, elink_target);
	if (has <= 0)
		B2_FAIL0(B2_EDATA, "%s: dataset %s is missing", where, name);
	if (*dset < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot open dataset %s", where, name);
	B2_TRY(check_storage(*dset, name, where));
done:
	if (error && *dset >= 0) {
		H5Dclose(*dset);
		*dset = -1;
	}
	return error;
}
