-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (RENAME CONSTRAINT: changes only the constraint's name, and its index's name; no table or column name that queries use changes)
-- verified: PG15: constraints and their indexes renamed, index relfilenodes unchanged (only names change), no scan
-- given: CREATE TABLE memberships (id bigserial, org_id bigint NOT NULL, user_id bigint NOT NULL, CONSTRAINT memberships_pk PRIMARY KEY (id), CONSTRAINT uq_org_user UNIQUE (org_id, user_id));
ALTER TABLE memberships RENAME CONSTRAINT memberships_pk TO memberships_pkey;
ALTER TABLE memberships RENAME CONSTRAINT uq_org_user TO memberships_org_id_user_id_key;
