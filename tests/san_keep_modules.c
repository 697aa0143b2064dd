/* Linked into the sanitizer build only: MPICH's transports (UCX) load
 * modules with dlopen and unload them at MPI_Finalize, after which
 * LeakSanitizer cannot name the library their allocations came from (and so
 * cannot suppress them). Keeping modules mapped lets tests/lsan.supp work. */
int dlclose(void *handle);
int dlclose(void *handle)
{
	(void)handle;
	return 0;
}
