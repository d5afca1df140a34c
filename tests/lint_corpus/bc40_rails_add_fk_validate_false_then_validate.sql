-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint NOT VALID: no scan; VALIDATE CONSTRAINT in its own transaction takes SHARE UPDATE EXCLUSIVE on the table and ROW SHARE on the referenced table, reads and writes go on)
-- verified: PG15: ADD ... NOT VALID: no scan; VALIDATE alone (in a BEGIN for inspection): ShareUpdateExclusiveLock on line_items, RowShareLock on orders; relfilenode unchanged
-- given: CREATE TABLE "orders" ("id" bigserial primary key, "placed_at" timestamp(6) NOT NULL);
-- given: CREATE TABLE "line_items" ("id" bigserial primary key, "order_id" bigint NOT NULL, "qty" integer NOT NULL);
ALTER TABLE "line_items" ADD CONSTRAINT "fk_rails_3a1c9e8f2b" FOREIGN KEY ("order_id") REFERENCES "orders" ("id") NOT VALID;
ALTER TABLE "line_items" VALIDATE CONSTRAINT "fk_rails_3a1c9e8f2b";
