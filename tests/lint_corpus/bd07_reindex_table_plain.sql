-- expect: unsafe require-concurrent-reindex
-- doc: https://www.postgresql.org/docs/current/sql-reindex.html ("REINDEX locks out writes but not reads of the index's parent table ... ACCESS EXCLUSIVE lock on the specific index being processed")
-- verified: PG15: relfilenode of Documents_pkey and IX_Documents_OwnerId both changed (rebuilt), table scanned
-- given: CREATE TABLE "Documents" ("Id" bigint PRIMARY KEY, "OwnerId" bigint NOT NULL, "Title" text);
-- given: CREATE INDEX "IX_Documents_OwnerId" ON "Documents" ("OwnerId");
-- fix bloat after the 2026-11 mass import
REINDEX TABLE "Documents";
