-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: volatile DEFAULT / identity rewrite the table); the table is created earlier in this file, so it is empty and unused: the rewrite and NOT NULL check cost nothing
-- verified: every rewrite, scan and index build hit only the new table api_keys; no existing table touched
CREATE TABLE api_keys (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, owner_id bigint NOT NULL);
ALTER TABLE api_keys ADD COLUMN token uuid NOT NULL DEFAULT gen_random_uuid(), ADD COLUMN created_at timestamptz NOT NULL DEFAULT clock_timestamp(), ADD COLUMN label text NOT NULL;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_label_check CHECK (label <> ''), ADD CONSTRAINT api_keys_token_key UNIQUE (token);
