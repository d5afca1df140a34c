-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN without default: catalog-only; RENAME COLUMN: catalog-only); the renamed column was added earlier in this file, so no running code uses it
-- verified: PG15: all statements succeed; memberships relfilenode unchanged
-- given: CREATE TABLE memberships (id bigint PRIMARY KEY, user_id bigint NOT NULL, org_id bigint NOT NULL, role text NOT NULL);
-- Rails: add_column :memberships, :invited_by, :bigint ; rename_column :memberships, :invited_by, :inviter_id
ALTER TABLE "memberships" ADD "invited_by" bigint;
ALTER TABLE "memberships" RENAME COLUMN "invited_by" TO "inviter_id";
COMMENT ON COLUMN "memberships"."inviter_id" IS 'user who sent the invitation';
