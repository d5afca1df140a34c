-- Customers of the shop.
CREATE TABLE customers (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email      text NOT NULL,
    full_name  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The table is created in this same migration, so a plain index is fine here: nobody uses
-- the table yet. safemigrate leaves it as written.
CREATE UNIQUE INDEX customers_email_key ON customers (lower(email));
