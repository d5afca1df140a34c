-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html (a non-concurrent build holds SHARE on the table, blocking INSERT/UPDATE/DELETE for the build); Django sqlmigrate wraps AddIndex in BEGIN/COMMIT
-- verified: PG15: inside the block SHARE lock on "shop_order" held until COMMIT; relfilenode of shop_order unchanged, new index built
-- given: CREATE TABLE "shop_order" ("id" bigserial PRIMARY KEY, "customer_id" bigint NOT NULL, "created" timestamptz NOT NULL, "state" varchar(16) NOT NULL);
BEGIN;
--
-- Create index shop_order_custome_8b1a2e_idx on field(s) customer_id, -created of model order
--
CREATE INDEX "shop_order_custome_8b1a2e_idx" ON "shop_order" ("customer_id", "created" DESC);
COMMIT;
