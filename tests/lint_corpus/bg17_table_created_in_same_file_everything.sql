-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html; the table is created earlier in this file (empty, unused): type change, NOT NULL, CHECK, UNIQUE and index build cost nothing
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); new relations Feature_Flags, Feature_Flags_key_unique, Feature_Flags_pkey; seq_scan rose on public.Feature_Flags; locks held (whole file in one test transaction): Feature_Flags AccessExclusiveLock, Feature_Flags AccessShareLock, Feature_Flags ShareLock, Feature_Flags ShareRowExclusiveLock, Feature_Flags_key_unique AccessExclusiveLock, Feature_Flags_key_unique AccessShareLock, Feature_Flags_pkey AccessExclusiveLock, Feature_Flags_pkey AccessShareLock, tenants AccessShareLock, tenants RowShareLock, tenants ShareRowExclusiveLock, tenants_pkey AccessShareLock
-- given: CREATE TABLE tenants (id bigint PRIMARY KEY);
CREATE TABLE "public"."Feature_Flags" ("id" integer NOT NULL, "tenant_id" bigint, "key" varchar(64));
ALTER TABLE "public"."Feature_Flags" ALTER COLUMN "id" TYPE bigint, ALTER COLUMN "key" SET NOT NULL, ADD CONSTRAINT "Feature_Flags_pkey" PRIMARY KEY ("id");
ALTER TABLE "public"."Feature_Flags" ADD CONSTRAINT "Feature_Flags_key_unique" UNIQUE ("tenant_id", "key");
ALTER TABLE "public"."Feature_Flags" ADD CONSTRAINT "Feature_Flags_tenant_fk" FOREIGN KEY ("tenant_id") REFERENCES tenants (id);
