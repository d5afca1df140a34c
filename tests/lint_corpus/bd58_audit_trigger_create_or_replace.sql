-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtrigger.html (CREATE OR REPLACE TRIGGER from 14; takes SHARE ROW EXCLUSIVE briefly, no scan); https://www.postgresql.org/docs/current/sql-altertable.html (DISABLE/ENABLE TRIGGER: SHARE ROW EXCLUSIVE, catalog only); sql-comment.html
-- verified: PG15: CREATE OR REPLACE TRIGGER and DISABLE TRIGGER take ShareRowExclusiveLock on "Orders" only, no scan, relfilenode unchanged
-- given: CREATE TABLE "Orders" ("Id" bigint PRIMARY KEY, "Status" text NOT NULL, "UpdatedAt" timestamptz);
-- given: CREATE TABLE order_audit (id bigserial PRIMARY KEY, order_id bigint NOT NULL, old_status text, new_status text, changed_at timestamptz NOT NULL DEFAULT now());
CREATE OR REPLACE FUNCTION order_status_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."Status" IS DISTINCT FROM OLD."Status" THEN
    INSERT INTO order_audit (order_id, old_status, new_status) VALUES (NEW."Id", OLD."Status", NEW."Status");
  END IF;
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER "Orders_status_audit"
    AFTER UPDATE OF "Status" ON "Orders"
    FOR EACH ROW EXECUTE FUNCTION order_status_audit();

ALTER TABLE "Orders" DISABLE TRIGGER "Orders_status_audit";
COMMENT ON TRIGGER "Orders_status_audit" ON "Orders" IS 'enabled by ops after the backfill';
