-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html (CONCURRENTLY: writes go on; IF NOT EXISTS); https://www.postgresql.org/docs/current/sql-comment.html (COMMENT only changes the catalog)
-- verified: PG15: CONCURRENTLY outside a block succeeds (two scans of invoices, no ShareLock held across the build); COMMENT ON INDEX accepted
-- given: CREATE TABLE public.invoices (id bigserial PRIMARY KEY, tenant_id int NOT NULL, issued_on date NOT NULL, total_cents bigint NOT NULL);
-- Flyway V42__invoices_tenant_date_index.sql
CREATE INDEX CONCURRENTLY IF NOT EXISTS invoices_tenant_issued_idx
    ON public.invoices USING btree (tenant_id, issued_on)
    INCLUDE (total_cents);

COMMENT ON INDEX public.invoices_tenant_issued_idx IS 'monthly statements per tenant';
