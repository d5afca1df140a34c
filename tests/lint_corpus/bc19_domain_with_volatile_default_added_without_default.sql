-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-createdomain.html (DEFAULT: "The domain default is used for new columns of the domain type that do not specify a default"); tablecmds.c ATExecAddColumn: the column default is built with build_column_default, which falls back to the domain's default, and a volatile one forces a rewrite
-- verified: PG15: relfilenode of documents changed (rewrite); every existing row got its own random token
-- given: CREATE DOMAIN public_token AS text DEFAULT md5(random()::text);
-- given: CREATE TABLE documents (id bigint PRIMARY KEY, body text);
ALTER TABLE documents ADD COLUMN share_token public_token;
