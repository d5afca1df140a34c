CREATE TABLE products (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sku         text NOT NULL,
    title       text NOT NULL,
    price_cents integer NOT NULL CHECK (price_cents >= 0)
);

CREATE TABLE orders (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES customers (id),
    status      text NOT NULL DEFAULT 'new',
    placed_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE order_items (
    order_id   bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    product_id bigint NOT NULL,
    quantity   integer NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (order_id, product_id)
);

INSERT INTO products (sku, title, price_cents) VALUES
    ('MUG-01', 'Mug; blue', 1200),
    ('TEE-02', 'T-shirt ''classic''', 2500),
    ('CAP-03', 'Cap -- one size', 1800);

INSERT INTO customers (email, full_name) VALUES ('ada@example.com', 'Ada Lovelace');
INSERT INTO orders (customer_id) SELECT id FROM customers WHERE email = 'ada@example.com';
INSERT INTO order_items (order_id, product_id, quantity)
SELECT o.id, p.id, 2 FROM orders o CROSS JOIN products p WHERE p.sku = 'MUG-01'
