-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: only a binary-coercible change skips the rewrite); enum -> text is an I/O conversion cast (pg_cast has no binary cast from anyenum to text), so every row is rewritten and indexes rebuilt
-- verified: PG15: relfilenode of subscriptions changed and subscriptions_status_idx rebuilt
-- given: CREATE TYPE subscription_status AS ENUM ('trial', 'active', 'canceled');
-- given: CREATE TABLE subscriptions (id bigint PRIMARY KEY, status subscription_status NOT NULL DEFAULT 'trial');
-- given: CREATE INDEX CONCURRENTLY subscriptions_status_idx ON subscriptions (status);
-- Replace the enum with a text column + check (Rails: change_column :subscriptions, :status, :string)
ALTER TABLE "subscriptions" ALTER COLUMN "status" DROP DEFAULT;
ALTER TABLE "subscriptions" ALTER COLUMN "status" TYPE character varying USING "status"::text;
ALTER TABLE "subscriptions" ALTER COLUMN "status" SET DEFAULT 'trial';
