-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html; the table is created in this same migration, so it is empty and unused: the SHARE lock blocks nobody
-- verified: PG15: whole block succeeds; indexes created on the new, empty api_tokens only; existing users only referenced by the FK
-- given: CREATE TABLE "schema_migrations" ("version" character varying NOT NULL PRIMARY KEY);
-- given: CREATE TABLE "users" ("id" bigserial primary key, "email" character varying NOT NULL, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL);
BEGIN;
CREATE TABLE "api_tokens" ("id" bigserial primary key, "user_id" bigint NOT NULL, "digest" character varying NOT NULL, "last_used_at" timestamp(6), "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL, CONSTRAINT "fk_rails_f16b5e0447" FOREIGN KEY ("user_id") REFERENCES "users" ("id"));
CREATE INDEX "index_api_tokens_on_user_id" ON "api_tokens" ("user_id");
CREATE UNIQUE INDEX "index_api_tokens_on_digest" ON "api_tokens" ("digest");
INSERT INTO "schema_migrations" ("version") VALUES ('20261130101500') RETURNING "version";
COMMIT;
